export { KEYWORD_SAVE_AFTER, SqliteKeywordIndex } from './keyword-index';
