// CommonJS in both builds, so that its `require` resolves from this package's own directory.
export = require;
