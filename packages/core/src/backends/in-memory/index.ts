export { InMemoryBackend } from './in-memory-backend';
