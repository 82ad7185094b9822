export { type ImportMemoriesOptions, type ImportMemoriesResult, importMemories } from './import-memories';
export { type MemoryLine, type ParsedLines, parseMemoryLines } from './parse-lines';
