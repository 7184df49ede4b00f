import { useState } from 'react';
import { CopyButton } from './CopyButton.js';
import { mcpHostConfig, type McpServerConfig } from '../../../server/wire/mcp-config.js';

/**
 * Closing a dialog that shows a key before the key was copied asks first: Coffer keeps only the
 * key's hash, so a key closed away is gone.
 */
export function useKeyCloseGuard(close: () => void) {
  const [copied, setCopied] = useState(false);
  const [confirming, setConfirming] = useState(false);
  return {
    confirming,
    markCopied: () => setCopied(true),
    /** Close now if the key was copied (or there is none), else ask; true when it closed. */
    requestClose: (hasKey: boolean): boolean => {
      if (hasKey && !copied) {
        setConfirming(true);
        return false;
      }
      close();
      return true;
    },
    cancelConfirm: () => setConfirming(false),
    reset: () => {
      setCopied(false);
      setConfirming(false);
    },
  };
}

/** An agent's API key, shown once, and the MCP config that carries it. */
export function KeyOnce({
  agentId,
  apiKey,
  mcpConfig,
  onCopied,
}: {
  agentId: string;
  apiKey: string;
  mcpConfig: McpServerConfig;
  onCopied: () => void;
}) {
  const mcpJson = JSON.stringify(mcpHostConfig(`coffer-${agentId}`, mcpConfig), null, 2);
  return (
    <>
      <p>
        This is the agent's API key. <strong>It is shown only now</strong>: Coffer keeps only its hash.
      </p>
      <div className="secret">
        <code data-testid="api-key">{apiKey}</code>
        <CopyButton text={apiKey} label="Copy key" onCopied={onCopied} />
      </div>
      <p>Paste this into your MCP host's configuration (Claude Desktop, Cursor, …):</p>
      <pre className="code" data-testid="mcp-config">
        {mcpJson}
      </pre>
      {/* The MCP config carries the key too. */}
      <CopyButton text={mcpJson} label="Copy MCP config" onCopied={onCopied} />
    </>
  );
}

/** The question asked when a dialog showing a key is closed before the key was copied. */
export function UncopiedKeyWarning({ onBack, onClose }: { onBack: () => void; onClose: () => void }) {
  return (
    <div className="confirm-close" role="alertdialog" aria-labelledby="confirm-close-text">
      <p id="confirm-close-text">
        <strong>The key has not been copied.</strong> Once this closes it cannot be shown again (the agent's page can issue a new one, which
        stops this one).
      </p>
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onBack}>
          Back to the key
        </button>
        <button type="button" className="button danger" onClick={onClose}>
          Close without the key
        </button>
      </div>
    </div>
  );
}
