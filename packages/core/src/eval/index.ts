export {
  type CaseFileError,
  caseFileError,
  checkSkillNames,
  type ParsedCaseFile,
  parseCaseFile,
  type SkillSourceLine,
} from './case-file';
export {
  type EvalCase,
  type EvalMemory,
  type EvalMessage,
  type EvalQuestion,
  type EvalSession,
  type EvalSuite,
  type EvalTurn,
  emptyCase,
} from './eval-suite';
export { loadEvalFile } from './load-eval-file';
export {
  isLocomo,
  LOCOMO_CATEGORY_NAMES,
  type LocomoConversation,
  type LocomoQuestion,
  type LocomoTurn,
  locomoSuite,
  parseEvidence,
  parseLocomo,
  parseLocomoDate,
} from './locomo';
export {
  type CaseResult,
  type ConfigurationResult,
  configurationName,
  EVAL_INGEST_MODES,
  EVAL_SIGNALS,
  type EvalConfiguration,
  type EvalIngestMode,
  type EvalReport,
  type EvalSignal,
  type EvalStoreOptions,
  ingestCase,
  type MessageResult,
  type OpenedEvalStore,
  type OpenEvalStore,
  type QuestionResult,
  type RunEvalOptions,
  runEval,
} from './run-eval';
export type { EvalSummary, Latency, RecallSummary, SkillsSummary } from './summary';
