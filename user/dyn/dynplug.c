// The shared object dynhello loads with dlopen: code reached through a
// relocated function pointer and data with an initial value, so that
// mapping, relocation and the initialiser of a dlopen'ed object are all
// exercised.

static int counter = 40;
static int initialised;

__attribute__((constructor)) static void plug_init(void)
{
	initialised = 1;
}

static int add(int a, int b)
{
	return a + b;
}

int (*plug_add_ptr)(int, int) = add;

int plug_add(int a, int b)
{
	counter += 2;
	return plug_add_ptr(a, b) + counter - 42 + (initialised ? 0 : 1000);
}
