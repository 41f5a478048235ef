// Preloaded (`node --require`) into a server started as a client starts it: when the process exits, it writes the
// packages it loaded (every file CommonJS loaded, which includes the CommonJS packages ESM imported) to stderr as
// one `loaded-packages <json>` line, so that a test can see what a cold start paid for.
process.on('exit', () => {
  const packages = new Set();
  for (const file of Object.keys(require.cache)) {
    const match = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file);
    if (match) packages.add(match[1].replace(/\\/g, '/'));
  }
  process.stderr.write(`loaded-packages ${JSON.stringify([...packages].sort())}\n`);
});
