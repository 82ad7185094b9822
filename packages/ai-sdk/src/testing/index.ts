export { mockChatModel, mockExtractor, textChunks, textResult, usage } from './mock-models';
