export { type MemoryToolsOptions, memoryTools } from './memory-tools';
