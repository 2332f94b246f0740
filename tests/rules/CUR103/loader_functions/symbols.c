/* The library's symbol lookup: dlsym() with a warning when a symbol is missing, and a
   setting lookup that only logs the name it is given. */
#include <dlfcn.h>
#include <stdio.h>

void *ep_symbol(void *lib, const char *name)
{
    void *found = dlsym(lib, name);
    if (found == NULL)
        fprintf(stderr, "missing %s: %s\n", name, dlerror());
    return found;
}

void *ep_setting(void *lib, const char *name)
{
    (void)lib;
    fprintf(stderr, "no setting %s\n", name);
    return NULL;
}
