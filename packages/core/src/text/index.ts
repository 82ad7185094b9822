export { contentHash, normalizeContent } from './normalize';
export { stem, stemInflection } from './stem';
export { STOPWORDS } from './stopwords';
export { countTerms, tokenize, words } from './tokenize';
export { cleanLabel, cleanStoredText, needsCleaning, normalizeLineBreaks, toDisplayText } from './control-chars';
