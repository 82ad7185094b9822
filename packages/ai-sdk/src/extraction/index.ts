export { type ExtractFactsOptions, extractFacts, extractionSchema } from './extract-facts';
