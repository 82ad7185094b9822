export { SqliteDenseIndex, type WrittenVector } from './dense-index';
