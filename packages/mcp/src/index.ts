export * from './config';
export { main } from './main';
export { CONTEXT_PROMPT, registerPrompts } from './prompts';
export { listSessions, registerResources, type SessionInfo, sessionSummary, skillToMarkdown } from './resources';
export { type ServeOptions, serve } from './run';
export * from './server';
export { registerTools, toSkillOut } from './tools';
export * from './transport';
