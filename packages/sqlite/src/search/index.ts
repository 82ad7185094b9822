export { approximateDenseSearch, knnDenseSearch } from './dense-search';
export { keywordSearch } from './keyword-search';
