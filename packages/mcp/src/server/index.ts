export { createMcpServer, SERVER_NAME, SERVER_VERSION } from './create-server';
export { defineTool, type ToolDefinition, type ToolOutput, toolError } from './define-tool';
export * from './schemas';
export { ServerContext } from './server-context';
export { CURRENT_SESSION, SESSION_URI_TEMPLATE, SKILL_URI_TEMPLATE, STATS_URI, sessionUri, skillUri } from './uris';
