// How to put a copied signature into each mail client (their current settings paths): on a
// person's own signature page, and beside any user's signature an admin opens from Users.
/** The steps; `card: false` inside a dialog. */
export function PasteHelp({ card = true }: { card?: boolean }) {
  return (
    <div className={card ? 'card' : 'paste-help'}>
      <h2>Add it to your mail</h2>
      <p className="muted">Press “Copy signature”, then paste into your mail client’s signature box.</p>
      <div className="grid">
        <div>
          <h3>Gmail</h3>
          <ol>
            <li>Open Settings (the gear), then “See all settings”.</li>
            <li>Under General → Signature, press “Create new” and name it.</li>
            <li>Click in the box and paste (Ctrl+V, or ⌘V on a Mac).</li>
            <li>Choose it for new emails and replies, then “Save changes” at the bottom.</li>
          </ol>
        </div>
        <div>
          <h3>Outlook</h3>
          <ol>
            <li>Outlook on the web and the new Outlook: Settings → Account → Signatures.</li>
            <li>Classic Outlook for Windows: File → Options → Mail → Signatures.</li>
            <li>Add a new signature, paste it into the editor, and choose it as the default.</li>
            <li>Save.</li>
          </ol>
        </div>
        <div>
          <h3>Apple Mail</h3>
          <ol>
            <li>Mail → Settings → Signatures, pick the account, press “+”.</li>
            <li>Untick “Always match my default message font”.</li>
            <li>Select the sample text and paste over it.</li>
            <li>Close the window; Mail saves it.</li>
          </ol>
        </div>
      </div>
    </div>
  );
}
