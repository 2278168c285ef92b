#include "CVipsShim.h"

int blogphotos_setup(void) {
    if (VIPS_INIT("blogd")) return -1;
    // A photo uses at most one vips worker beside its caller: the server's
    // own threads decide how many photos are decoded at once.
    vips_concurrency_set(1);
    // The operation cache would keep decoded images (and references to
    // the caller's buffer) after the call returns: memory the server does
    // not account for, and no help with photos that are seen once.
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    // Loaders vips marks untrusted (ImageMagick, matio, ...) are never
    // wanted for uploads; BlogPhotos names its loaders anyway.
    vips_block_untrusted_set(TRUE);
    return 0;
}

VipsImage *blogphotos_open(blogphotos_kind kind, const void *buffer, size_t length) {
    VipsImage *out = NULL;
    // The loaders take a non-const pointer but never write through it.
    void *data = (void *) buffer;
    int result = -1;
    switch (kind) {
    case BLOGPHOTOS_JPEG:
        result = vips_jpegload_buffer(data, length, &out, "access", VIPS_ACCESS_SEQUENTIAL,
                                      "fail_on", VIPS_FAIL_ON_ERROR, NULL);
        break;
    case BLOGPHOTOS_PNG:
        result = vips_pngload_buffer(data, length, &out, "access", VIPS_ACCESS_SEQUENTIAL,
                                     "fail_on", VIPS_FAIL_ON_ERROR, NULL);
        break;
    case BLOGPHOTOS_WEBP:
        result = vips_webpload_buffer(data, length, &out, "access", VIPS_ACCESS_SEQUENTIAL,
                                      "fail_on", VIPS_FAIL_ON_ERROR, NULL);
        break;
    case BLOGPHOTOS_HEIC:
        result = vips_heifload_buffer(data, length, &out, "access", VIPS_ACCESS_SEQUENTIAL,
                                      "fail_on", VIPS_FAIL_ON_ERROR, NULL);
        break;
    }
    return result ? NULL : out;
}

// Anything with alpha is flattened onto white: JPEG has no alpha, and
// vips's own conversion for saving would flatten onto black.
static VipsImage *flattened(VipsImage *image) {
    if (!image || !vips_image_hasalpha(image)) return image;
    VipsImage *out = NULL;
    VipsArrayDouble *white = vips_array_double_newv(1, 255.0);
    int result = vips_flatten(image, &out, "background", white, NULL);
    vips_area_unref(VIPS_AREA(white));
    g_object_unref(image);
    return result ? NULL : out;
}

VipsImage *blogphotos_fit_buffer(const void *buffer, size_t length, int side, int has_profile) {
    VipsImage *out = NULL;
    // vips_thumbnail picks the same loader as blogphotos_open (the caller
    // has checked the magic bytes) and passes option_string to it.
    int result = has_profile
        ? vips_thumbnail_buffer((void *) buffer, length, &out, side, "height", side, "size", VIPS_SIZE_DOWN,
                                "export_profile", "srgb", "option_string", "fail_on=error", NULL)
        : vips_thumbnail_buffer((void *) buffer, length, &out, side, "height", side, "size", VIPS_SIZE_DOWN,
                                "option_string", "fail_on=error", NULL);
    return flattened(result ? NULL : out);
}

VipsImage *blogphotos_fit_image(VipsImage *image, int side) {
    VipsImage *out = NULL;
    int result = vips_thumbnail_image(image, &out, side, "height", side, "size", VIPS_SIZE_DOWN,
                                      "no_rotate", TRUE, NULL);
    return flattened(result ? NULL : out);
}

int blogphotos_jpeg(VipsImage *image, int quality, int progressive, void **out, size_t *length) {
    return vips_jpegsave_buffer(image, out, length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE,
                                "interlace", progressive ? TRUE : FALSE, NULL);
}
