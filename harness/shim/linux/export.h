#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)
