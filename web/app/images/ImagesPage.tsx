// Images: upload logos and photos (PNG, JPEG, GIF; at most the service's size and sides, from the
// runtime config: the size is checked here first so a person hears at once, and by the service in
// any case), see them with their URL, and delete them. Templates insert them from the editor.
import { useRef, useState } from 'react';
import { PageHeader } from '../../shared/components/PageHeader.tsx';
import { Button } from '../../shared/components/Button.tsx';
import { ConfirmDialog } from '../../shared/components/Dialog.tsx';
import { CopyButton } from '../../shared/components/CopyButton.tsx';
import { Pager, usePager } from '../../shared/components/Pager.tsx';
import { Empty, ErrorMessage, Loading } from '../../shared/components/Status.tsx';
import { useMutation } from '../../shared/api/query.ts';
import { useLimits } from '../../shared/app-context.tsx';
import { notices } from '../../shared/notices.ts';
import type { Schemas } from '../../shared/api/types.ts';
import { useImageActions, useImages } from './api.ts';
import './images.css';

type Image = Schemas['Image'];
const TYPES = ['image/png', 'image/jpeg', 'image/gif'];
const PAGE = 24;
/** Bytes as megabytes for people: "1", "1.5". */
const megabytes = (bytes: number) => String(Number((bytes / 1024 / 1024).toFixed(1)));

export default function ImagesPage() {
  const limits = useLimits();
  const pager = usePager();
  const images = useImages(PAGE, pager.cursor);
  const actions = useImageActions();
  const input = useRef<HTMLInputElement>(null);
  const [deleting, setDeleting] = useState<Image | null>(null);

  const upload = useMutation(async (files: File[]) => {
    for (const file of files) {
      if (!TYPES.includes(file.type)) throw new Error(`${file.name}: only PNG, JPEG and GIF images can be used in signatures.`);
      if (file.size > limits.imageBytes)
        throw new Error(`${file.name} is ${megabytes(file.size)} MB; an image may have at most ${megabytes(limits.imageBytes)} MB.`);
      await actions.upload(file);
      notices.show({ kind: 'success', text: `${file.name} uploaded.` });
    }
    await actions.refresh();
  });
  const remove = useMutation(async (image: Image) => {
    await actions.remove(image.imageId);
    setDeleting(null);
    notices.show({ kind: 'success', text: 'Image deleted.' });
  });

  return (
    <section className="page">
      <PageHeader
        title="Images"
        actions={
          <>
            <input
              ref={input}
              id="image-file"
              type="file"
              accept={TYPES.join(',')}
              multiple
              className="visually-hidden-file"
              aria-label="Image files to upload"
              onChange={(e) => {
                const files = [...(e.target.files ?? [])];
                e.target.value = '';
                if (files.length) void upload.run(files);
              }}
            />
            <Button variant="primary" onClick={() => input.current?.click()} disabled={upload.pending}>
              {upload.pending ? 'Uploading…' : 'Upload images'}
            </Button>
          </>
        }
      >
        Logos and photos for your signatures: PNG, JPEG or GIF, at most {megabytes(limits.imageBytes)} MB and {limits.imageSidePx.toLocaleString('en')} pixels a
        side. Anyone who receives an email can load them, so upload only what belongs in a signature. Insert them into a template from its editor.
      </PageHeader>
      <ErrorMessage error={upload.error} />
      {images.loading && !images.data ? <Loading /> : null}
      <ErrorMessage error={images.error} />
      {images.data && images.data.items.length === 0 && pager.page === 1 ? <Empty>No images yet.</Empty> : null}
      <ul className="images-grid" aria-label="Uploaded images">
        {images.data?.items.map((image) => (
          <li key={image.imageId} className="images-card">
            <img src={image.url} alt={`Uploaded image, ${image.width}×${image.height}`} loading="lazy" />
            <dl>
              <dt>Size</dt>
              <dd>
                {image.width}×{image.height} px, {(image.bytes / 1024).toFixed(1)} KB, {image.contentType.replace('image/', '').toUpperCase()}
              </dd>
              <dt>Uploaded</dt>
              <dd>{new Date(image.createdAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}</dd>
            </dl>
            <div className="cell-actions">
              <CopyButton label="Copy URL" text={image.url} />
              <Button
                variant="danger"
                onClick={() => setDeleting(image)}
                aria-label={`Delete image ${image.width}×${image.height} uploaded ${new Date(image.createdAt).toLocaleString()}`}
              >
                Delete
              </Button>
            </div>
          </li>
        ))}
      </ul>
      <Pager pager={pager} nextCursor={images.data?.nextCursor} />
      <ConfirmDialog
        title="Delete this image?"
        open={deleting !== null}
        confirmLabel="Delete image"
        pending={remove.pending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && void remove.run(deleting)}
      >
        <p>Its address stops working: signatures that show it, including emails already sent, will show no image.</p>
        <ErrorMessage error={remove.error} />
      </ConfirmDialog>
    </section>
  );
}
