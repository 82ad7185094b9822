export {
  CONTEXT_CLOSE,
  CONTEXT_OPEN,
  type ContextBlockInput,
  type ContextBlockOptions,
  injectContextBlock,
  renderContextBlock,
  stripContextBlock,
} from './context-block';
export { sanitizeForPrompt } from './sanitize';
