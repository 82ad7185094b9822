export { approximateDenseSearch, knnDenseSearch } from './dense-search';
export { keywordSearch } from './keyword-search';
export { type HitColumns, hitColumns, partialAttributes } from './hit-columns';
