export {
  BackgroundExtractor,
  type BackgroundExtractorOptions,
  type Exchange,
  type ExtractionReport,
  type ExtractionUsage,
  type FactExtractor,
} from './background-extractor';
export { EXTRACTION_INSTRUCTIONS, EXTRACTION_JSON_FORMAT, formatExchange } from './instructions';
export { type ExtractedFact, parseFacts, parseFactsFromText } from './parse-facts';
