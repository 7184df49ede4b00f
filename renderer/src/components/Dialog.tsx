import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * A modal <dialog>: focus moves in, Escape closes, the page behind is inert. With `onRequestClose`,
 * Escape asks instead of closing (for a dialog holding something that would be lost). The browser
 * may close a dialog whatever the page says (a second Escape in a row cannot be cancelled): such a
 * dialog that its owner still wants open is shown again, and asked to close, never just closed.
 */
export function Dialog({
  open,
  onClose,
  onRequestClose,
  title,
  children,
}: {
  open: boolean;
  onClose: () => void;
  onRequestClose?: () => void;
  title: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // Several dialogs live on one page (closed ones too): each is named by its own heading.
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onClose={() => {
        if (open && onRequestClose && ref.current && !ref.current.open) {
          ref.current.showModal();
          onRequestClose();
        } else onClose();
      }}
      onCancel={(event) => {
        event.preventDefault();
        (onRequestClose ?? onClose)();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}
