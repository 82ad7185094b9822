export {
  KEYWORD_INDEX_COLUMNS,
  type KeywordDocument,
  KeywordIndex,
  type KeywordMatch,
  KeywordPartError,
} from './keyword-index';
