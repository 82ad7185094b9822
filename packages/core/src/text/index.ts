export { contentHash, normalizeContent } from './normalize';
export { inflectionKey, stem, stemInflection } from './stem';
export { keywordTerms } from './keyword-terms';
export { STOPWORDS } from './stopwords';
export { countTerms, tokenize, words } from './tokenize';
export { cleanLabel, cleanStoredText, needsCleaning, normalizeLineBreaks, toDisplayText } from './control-chars';
export { editDistance } from './edit-distance';
