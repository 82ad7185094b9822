export {
  DEFAULT_EXTRACTION_INSTRUCTIONS,
  type ExtractedFact,
  type ExtractFactsOptions,
  type ExtractionTokenUsage,
  extractFacts,
  extractionSchema,
} from './extract-facts';
