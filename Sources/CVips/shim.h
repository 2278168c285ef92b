// libvips from the system (Debian: libvips-dev), found through pkg-config.
#include <vips/vips.h>
