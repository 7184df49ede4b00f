// The dashboard window's preload: sandboxed, so CommonJS and nothing but contextBridge. It tells the
// page it runs in the desktop app; secrets and every privileged call stay in the main process.
const { contextBridge } = require('electron');

contextBridge.exposeInMainWorld('cofferDesktop', Object.freeze({ isDesktop: true, platform: process.platform }));
