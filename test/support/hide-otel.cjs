// Preloaded (`node --require`) to run mcplite as if no OpenTelemetry package were installed (it is an optional
// peer): every `@opentelemetry/*` is "not found", for `require` (CommonJS resolution) and for `import()` (an ESM
// resolve hook), the way a plain install without the peer answers.
const Module = require('node:module');

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function hideOtel(request, ...rest) {
  if (request.startsWith('@opentelemetry/')) {
    const err = new Error(`Cannot find module '${request}'`);
    err.code = 'MODULE_NOT_FOUND';
    throw err;
  }
  return resolveFilename.call(this, request, ...rest);
};

const hook = `export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@opentelemetry/')) {
    const err = new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL);
    err.code = 'ERR_MODULE_NOT_FOUND';
    throw err;
  }
  return next(specifier, context);
}`;
Module.register(`data:text/javascript,${encodeURIComponent(hook)}`);
