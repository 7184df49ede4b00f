import { useEffect, useState } from 'react';
import QRCode from 'qrcode';

/** A QR code of a wallet address, drawn as a data: image (allowed by the page's CSP). */
export function QrCode({ text, label }: { text: string; label: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    QRCode.toDataURL(text, { margin: 1, width: 160, errorCorrectionLevel: 'M' })
      .then((url) => live && setSrc(url))
      .catch(() => live && setSrc(null));
    return () => {
      live = false;
    };
  }, [text]);
  return src ? (
    <img className="qr" src={src} width={160} height={160} alt={label} />
  ) : (
    <div className="qr placeholder" aria-hidden="true" />
  );
}
