// The Electron main process entry. Coffer's sources are TypeScript; tsx compiles them (as the CLI does).
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
