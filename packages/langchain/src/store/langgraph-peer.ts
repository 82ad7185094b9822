// The optional peer `@langchain/langgraph-checkpoint`, imported in this one module: the build replaces it with
// one that names the package to install when it is missing (see tsup.config.ts). Types come from the package.
export { BaseStore, validateNamespace } from '@langchain/langgraph-checkpoint';
