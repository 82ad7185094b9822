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
