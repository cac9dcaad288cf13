// Choosing one of the org's images to insert into the template at the cursor: an <img> with the
// image's URL and its size (scaled down to at most 600 px wide, the width of most signatures),
// since mail clients lay out an image without width and height badly (and the service warns).
import { useState } from 'react';
import { Dialog } from '../../shared/components/Dialog.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { TextField } from '../../shared/components/Field.tsx';
import { Empty, ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import type { Schemas } from '../../shared/api/types.ts';
import { usePickerImages } from './api.ts';

type Image = Schemas['Image'];
const MAX_WIDTH = 600;

export function imgTag(image: Pick<Image, 'url' | 'width' | 'height'>, alt: string): string {
  const scale = Math.min(1, MAX_WIDTH / image.width);
  const width = Math.round(image.width * scale);
  const height = Math.round(image.height * scale);
  const escaped = alt.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<img src="${image.url}" width="${width}" height="${height}" alt="${escaped}" style="display:block;border:0">`;
}

export function ImagePicker({ open, onPick, onClose }: { open: boolean; onPick(tag: string): void; onClose(): void }) {
  const images = usePickerImages(open);
  const [alt, setAlt] = useState('');
  return (
    <Dialog title="Insert an image" open={open} onClose={onClose} wide footer={<Button onClick={onClose}>Cancel</Button>}>
      <TextField
        label="Alternative text"
        hint="What a reader hears, or sees when images are off, e.g. “Acme logo”."
        value={alt}
        onChange={(e) => setAlt(e.target.value)}
      />
      {images.loading && !images.data ? <Loading label="Loading images…" /> : null}
      <ErrorMessage error={images.error} />
      {images.data?.items.length === 0 ? <Empty>No images yet: upload them on the Images page.</Empty> : null}
      <ul className="image-grid" aria-label="Images">
        {images.data?.items.map((image) => (
          <li key={image.imageId} className="image-card">
            <img src={image.url} alt="" loading="lazy" />
            <Button
              onClick={() => onPick(imgTag(image, alt))}
              aria-label={`Insert image ${image.width}×${image.height} uploaded ${new Date(image.createdAt).toLocaleString()}`}
            >
              Insert ({image.width}×{image.height})
            </Button>
          </li>
        ))}
      </ul>
    </Dialog>
  );
}
