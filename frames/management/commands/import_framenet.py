from django.core.management.base import BaseCommand, CommandError

from frames.framenet import SHIPPED_LEXICON, LexiconError
from frames.lexicon_store import SHIPPED_NAME, import_lexicon


class Command(BaseCommand):
    help = (
        "Import a FrameNet lexicon from a directory in the NLTK framenet_v17 layout (frameIndex.xml, "
        "luIndex.xml, frame/*.xml). Importing the same name again updates it. Without a path, imports "
        f"the small lexicon shipped with the project as {SHIPPED_NAME!r}."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", help="framenet_v17 directory (or its parent)")
        parser.add_argument("--name", help="lexicon name (default: the directory name)")

    def handle(self, path, name, **options):
        if path is None:
            path, name = SHIPPED_LEXICON, name or SHIPPED_NAME
        try:
            row, stats = import_lexicon(path, name=name)
        except LexiconError as exc:
            raise CommandError(f"nothing imported: {exc}") from None
        verb = "imported" if stats["created"] else "updated"
        self.stdout.write(
            f"{verb} lexicon {row.name}: {stats['frames']} frames, {stats['frame_elements']} frame elements, "
            f"{stats['lexical_units']} lexical units (new {stats['new_frames']}, changed {stats['updated_frames']}, "
            f"removed {stats['removed_frames']})"
        )
