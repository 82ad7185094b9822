export {
  backendConformanceCases,
  type ConformanceCase,
  type ConformanceOptions,
  runBackendConformance,
  type TestRegistrar,
} from './conformance';
export { FakeEmbedder, type FakeEmbedderOptions } from './fake-embedder';
export { seededRandom } from './seeded-random';
export { CATALOG_TEST_SKILLS } from './skill-library';
export { SemanticTestEmbedder, type SemanticTestEmbedderOptions } from './semantic-test-embedder';
export { unitVector } from './unit-vector';
