export { KEYWORD_INDEX_COLUMNS, type KeywordDocument, KeywordIndex, type KeywordMatch } from './keyword-index';
