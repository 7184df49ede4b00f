import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { FirstStartPage } from './pages/FirstStartPage.js';
import { guardUnsavedInput, inDesktopApp } from './lib/unsaved-input.js';
import './styles.css';

if (inDesktopApp(window)) guardUnsavedInput(document, window);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    {/* A first start (served before any treasury exists) sets Coffer up; everything else is the dashboard. */}
    {window.location.pathname === '/setup' ? <FirstStartPage /> : <App />}
  </StrictMode>,
);
