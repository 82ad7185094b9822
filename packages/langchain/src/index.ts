export * from './classic-memory';
export * from './embedder';
export * from './middleware';
export * from './retriever';
export * from './store';
export * from './tools';
