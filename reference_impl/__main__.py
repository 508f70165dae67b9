import sys

from reference_impl.server import serve

sys.exit(serve())
