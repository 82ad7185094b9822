export { SqliteEntityLinks } from './entity-links';
