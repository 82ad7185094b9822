export { FakeQdrant, type Fault, type RecordedRequest, rrfFuse } from './fake-qdrant-server';
export { OpenApiValidator } from './openapi-validator';
