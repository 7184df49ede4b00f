#!/usr/bin/env node
// The `coffer` command. Coffer's sources are TypeScript; tsx compiles them on the fly (cached).
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
