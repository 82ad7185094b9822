export { InMemoryBackend, type InMemoryBackendOptions } from './in-memory-backend';
