export { type HttpServerHandle, MCP_HTTP_PATH, serveHttp } from './http';
export { serveStdio } from './stdio';
