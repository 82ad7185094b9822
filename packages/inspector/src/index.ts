export { createInspectorApp } from './app';
export { bundleUi, type UiAssets } from './assets';
export { READ_ONLY_MESSAGE, readOnlyBackend } from './read-only-backend';
export { CONTENT_SECURITY_POLICY, CSRF_HEADER } from './security';
export { type InspectorHandle, type InspectorOptions, startInspector } from './server';
export { type InspectorStoreSettings, Stores } from './stores';
