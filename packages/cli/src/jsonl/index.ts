export {
  type ImportMemoriesOptions,
  type ImportMemoriesResult,
  type ImportPhase,
  importMemories,
} from './import-memories';
export { type MemoryLine, type ParsedLines, parseMemoryLines } from './parse-lines';
