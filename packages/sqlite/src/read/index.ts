export { count, decode, get, namespaces, scan, scanAttributes, vectors } from './read-records';
