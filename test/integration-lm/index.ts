/**
 * The VS Code models-and-tools suite runs with the same in-editor mocha runner as
 * test/integration: bundled here, it runs the *.test.js files beside this index.
 */
export { run } from '../integration/index';
