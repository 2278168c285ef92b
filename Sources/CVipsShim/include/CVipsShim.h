// Non-variadic doors into libvips for BlogPhotos: Swift cannot call C
// functions with `...` arguments, and nearly every vips operation is one.
// Each wrapper fixes the options BlogPhotos relies on, so that they are
// read in one place. All return NULL or -1 on failure, with the reason in
// vips's error buffer.
#ifndef BLOGD_CVIPSSHIM_H
#define BLOGD_CVIPSSHIM_H

#include <stddef.h>
#include <vips/vips.h>

/// The formats BlogPhotos accepts, as sniffed from their magic bytes.
typedef enum {
    BLOGPHOTOS_JPEG = 0,
    BLOGPHOTOS_PNG = 1,
    BLOGPHOTOS_WEBP = 2,
    BLOGPHOTOS_HEIC = 3,
} blogphotos_kind;

/// vips_init and the process-wide settings: one worker thread per
/// pipeline, no operation cache, untrusted loaders blocked. Call once.
int blogphotos_setup(void);

/// Opens `buffer` with the loader for `kind` only (never one picked by
/// sniffing), sequential access, failing on any error or truncation.
/// vips reads only the header here: no pixel is decoded until the image
/// is used. `buffer` must outlive the image.
VipsImage *blogphotos_open(blogphotos_kind kind, const void *buffer, size_t length);

/// Decodes `buffer`, shrinking on load where the format allows, turns it
/// upright by its orientation tag, fits it within `side` x `side` without
/// ever enlarging, converts it to sRGB (through its embedded ICC profile
/// when `has_profile`) and flattens any alpha onto white. `buffer` must
/// outlive the image.
VipsImage *blogphotos_fit_buffer(const void *buffer, size_t length, int side, int has_profile);

/// The same fit for an image already upright and in sRGB.
VipsImage *blogphotos_fit_image(VipsImage *image, int side);

/// JPEG at `quality` with no metadata at all (strip: no EXIF, XMP, IPTC,
/// ICC, comments). `*out` is g_malloc'd: release it with g_free.
int blogphotos_jpeg(VipsImage *image, int quality, int progressive, void **out, size_t *length);

#endif
