export { count, decode, get, namespaces, scan, scanAttributes } from './read-records';
