'use strict'
// Preloaded (`node --require`) by a CLI test: at exit, writes the files the process loaded to
// $AMUX_TEST_MODULES_OUT, so the test can tell what a command paid for at start.
process.on('exit', () => {
  require('node:fs').writeFileSync(process.env.AMUX_TEST_MODULES_OUT, JSON.stringify(Object.keys(require.cache)))
})
