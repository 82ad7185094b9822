// The optional peer `langchain`, imported in this one module: the build replaces it with one that names the
// package to install when it is missing, instead of Node's raw ERR_MODULE_NOT_FOUND (see tsup.config.ts).
export { createMiddleware } from 'langchain';
