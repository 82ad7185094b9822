export * from './embedding';
export * from './extraction';
export * from './middleware';
export * from './tools';
