/**
 * `npm run icons`: draws Coffer's icons into build/icons, at every size the packages and the tray need
 * (PNG for Linux, .ico for Windows, .icns for macOS, tray icons in two states). No image tool needed:
 * shapes are rasterised here with 4x4 supersampling and written as PNG with zlib.
 */
import { deflateSync, crc32 } from 'node:zlib';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type Rgba = [number, number, number, number];
type Shape = (x: number, y: number) => Rgba | null; // x, y in 0..1; null = transparent

const OUT = fileURLToPath(new URL('../icons/', import.meta.url));
const hex = (value: string, alpha = 255): Rgba => [
  parseInt(value.slice(1, 3), 16),
  parseInt(value.slice(3, 5), 16),
  parseInt(value.slice(5, 7), 16),
  alpha,
];

function roundedRect(x: number, y: number, left: number, top: number, right: number, bottom: number, radius: number): boolean {
  if (x < left || x > right || y < top || y > bottom) return false;
  const cx = Math.min(Math.max(x, left + radius), right - radius);
  const cy = Math.min(Math.max(y, top + radius), bottom - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
}

/** The chest: a body, a lid band, and a keyhole. */
function coffer(body: Rgba, lid: Rgba, lock: Rgba, dot: Rgba | null): Shape {
  return (x, y) => {
    if (dot && (x - 0.8) ** 2 + (y - 0.2) ** 2 <= 0.19 ** 2) return dot;
    const keyhole = (x - 0.5) ** 2 + (y - 0.56) ** 2 <= 0.1 ** 2 || (Math.abs(x - 0.5) <= 0.04 && y >= 0.56 && y <= 0.74);
    if (keyhole && roundedRect(x, y, 0.1, 0.3, 0.9, 0.88, 0.09)) return lock;
    if (roundedRect(x, y, 0.1, 0.16, 0.9, 0.4, 0.08)) return lid;
    if (roundedRect(x, y, 0.1, 0.3, 0.9, 0.88, 0.09)) return body;
    return null;
  };
}

function rasterize(shape: Shape, size: number): Buffer {
  const samples = 4;
  const pixels = Buffer.alloc(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const color = shape((px + (sx + 0.5) / samples) / size, (py + (sy + 0.5) / samples) / size);
          if (!color) continue;
          const alpha = color[3] / 255;
          r += color[0] * alpha;
          g += color[1] * alpha;
          b += color[2] * alpha;
          a += alpha;
        }
      }
      const offset = (py * size + px) * 4;
      const coverage = a / (samples * samples);
      pixels[offset] = a ? Math.round(r / a) : 0;
      pixels[offset + 1] = a ? Math.round(g / a) : 0;
      pixels[offset + 2] = a ? Math.round(b / a) : 0;
      pixels[offset + 3] = Math.round(coverage * 255);
    }
  }
  return pixels;
}

function png(pixels: Buffer, size: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body) >>> 0, 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) pixels.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function ico(images: { size: number; data: Buffer }[]): Buffer {
  const header = Buffer.alloc(6 + 16 * images.length);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(images.length, 4);
  let offset = header.length;
  images.forEach(({ size, data }, i) => {
    const entry = 6 + 16 * i;
    header[entry] = size >= 256 ? 0 : size;
    header[entry + 1] = size >= 256 ? 0 : size;
    header.writeUInt16LE(1, entry + 4);
    header.writeUInt16LE(32, entry + 6);
    header.writeUInt32LE(data.length, entry + 8);
    header.writeUInt32LE(offset, entry + 12);
    offset += data.length;
  });
  return Buffer.concat([header, ...images.map((i) => i.data)]);
}

function icns(entries: { type: string; data: Buffer }[]): Buffer {
  const blocks = entries.map(({ type, data }) => {
    const head = Buffer.alloc(8);
    head.write(type, 0, 'ascii');
    head.writeUInt32BE(data.length + 8, 4);
    return Buffer.concat([head, data]);
  });
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'ascii');
  head.writeUInt32BE(8 + blocks.reduce((n, b) => n + b.length, 0), 4);
  return Buffer.concat([head, ...blocks]);
}

export const APP_ICON_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024] as const;

export function makeIcons(out = OUT): string[] {
  mkdirSync(out, { recursive: true });
  const written: string[] = [];
  const write = (name: string, data: Buffer) => {
    writeFileSync(join(out, name), data);
    written.push(name);
  };
  const app = coffer(hex('#1f6f5c'), hex('#2a9d7f'), hex('#f4f1e8'), null);
  const appPng = new Map<number, Buffer>();
  for (const size of APP_ICON_SIZES) {
    appPng.set(size, png(rasterize(app, size), size));
    write(`${size}x${size}.png`, appPng.get(size)!);
  }
  write('icon.png', appPng.get(512)!);
  write('icon.ico', ico([16, 24, 32, 48, 64, 128, 256].map((size) => ({ size, data: appPng.get(size)! }))));
  write(
    'icon.icns',
    icns([
      { type: 'icp4', data: appPng.get(16)! },
      { type: 'icp5', data: appPng.get(32)! },
      { type: 'icp6', data: appPng.get(64)! },
      { type: 'ic07', data: appPng.get(128)! },
      { type: 'ic08', data: appPng.get(256)! },
      { type: 'ic09', data: appPng.get(512)! },
      { type: 'ic10', data: appPng.get(1024)! },
    ]),
  );
  // Tray, in two states (normal; a red dot while an agent is stopped or an approval waits), each for
  // a light panel (a dark glyph) and a dark panel (a light glyph); macOS gets template images (black
  // and alpha, which the menu bar recolours), the attention one told apart by its dot's shape.
  const glyph = { light: [hex('#1f2b28'), hex('#3d4a46')], dark: [hex('#f4f1e8'), hex('#c9c4b6')] } as const;
  const red = hex('#d93025');
  const variants: [string, Shape][] = [];
  for (const panel of ['light', 'dark'] as const) {
    const [body, lid] = glyph[panel];
    variants.push([`tray-normal-on-${panel}`, coffer(body, lid, hex('#ffffff', 0), null)]);
    variants.push([`tray-attention-on-${panel}`, coffer(body, lid, hex('#ffffff', 0), red)]);
  }
  const black = hex('#000000');
  variants.push(['trayTemplate', coffer(black, black, hex('#ffffff', 0), null)]);
  variants.push(['trayAttentionTemplate', coffer(black, black, hex('#ffffff', 0), black)]);
  for (const [name, shape] of variants) {
    write(`${name}.png`, png(rasterize(shape, 16), 16));
    write(`${name}@2x.png`, png(rasterize(shape, 32), 32));
  }
  return written;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`wrote ${makeIcons().length} icons to ${OUT}`);
}
