export * from './embedding';
export * from './extraction';
export * from './middleware';
export * from './session';
export * from './tools';
