"""Writing the lab's files without touching ones whose content is already right."""


def write_if_changed(path, text, mode=None):
    """Write text to path only if it differs: kube-proxy exits when its config file is
    written to, even with the same content. Return True when the file was written."""
    if path.exists() and path.read_text() == text:
        return False
    path.write_text(text)
    if mode is not None:
        path.chmod(mode)
    return True
