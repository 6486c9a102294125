// The console is built into the ingest service's classpath (META-INF/resources), which Quarkus serves at /.
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/',
  build: {
    outDir: '../../../target/classes/META-INF/resources',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
    sourcemap: false,
  },
  logLevel: 'warn',
});
