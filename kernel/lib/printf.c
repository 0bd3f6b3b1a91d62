// Switchyard's printf engine.  Everything funnels through kvformat(),
// which parses one conversion at a time into a struct conversion and hands
// it to a small emitter; the sinks (string buffer here, console elsewhere)
// only see characters.  No floating point: the kernel is built with
// -mgeneral-regs-only, so touching an SSE register would not even compile.
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lib/printf.h>

// Widths and precisions are clamped to this, so a garbage '*' argument or
// a typo like "%99999999999d" cannot overflow an int or spin for minutes.
#define FIELD_MAX (1 << 20)

enum length {
	LEN_DEFAULT,
	LEN_HH,		// char
	LEN_H,		// short
	LEN_L,		// long
	LEN_LL,		// long long
	LEN_Z,		// size_t
	LEN_T,		// ptrdiff_t
	LEN_J,		// intmax_t
};

// One parsed "%..." directive.
struct conversion {
	bool left;		// '-': pad on the right
	bool zero;		// '0': pad numbers with zeros
	bool plus;		// '+': always print a sign
	bool space;		// ' ': a space where a '+' would go
	bool alt;		// '#': 0x prefix for hex, leading 0 for octal
	int width;		// 0 when absent
	int precision;		// -1 when absent
	enum length length;
	char conv;		// the conversion letter, or '\0' at end of string
};

// Where characters go, and how many went there.
struct sink {
	format_out_fn out;
	void *arg;
	long count;
};

static void put(struct sink *s, char c)
{
	s->out(s->arg, c);
	s->count++;
}

static void put_repeat(struct sink *s, char c, int n)
{
	while (n-- > 0)
		put(s, c);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

// Reads a decimal field (width or precision), saturating at FIELD_MAX.
static int parse_field(const char **p)
{
	int v = 0;

	while (is_digit(**p)) {
		if (v < FIELD_MAX)
			v = v * 10 + (**p - '0');
		(*p)++;
	}
	return v < FIELD_MAX ? v : FIELD_MAX;
}

static int clamp_field(int v)
{
	return v < FIELD_MAX ? v : FIELD_MAX;
}

// Parses the flags, width, precision and length of the directive whose
// '%' precedes 'p'.  Returns the position just past the conversion letter
// (or at the terminating NUL if the string ends first).
static const char *parse_conversion(const char *p, struct conversion *c,
				    va_list *ap)
{
	*c = (struct conversion){ .precision = -1 };

	for (;; p++) {
		if (*p == '-')
			c->left = true;
		else if (*p == '0')
			c->zero = true;
		else if (*p == '+')
			c->plus = true;
		else if (*p == ' ')
			c->space = true;
		else if (*p == '#')
			c->alt = true;
		else
			break;
	}

	if (*p == '*') {
		// C: a negative '*' width means '-' flag plus a positive width.
		int w = va_arg(*ap, int);
		if (w < 0) {
			c->left = true;
			w = (w == INT32_MIN) ? FIELD_MAX : -w;
		}
		c->width = clamp_field(w);
		p++;
	} else {
		c->width = parse_field(&p);
	}

	if (*p == '.') {
		p++;
		if (*p == '*') {
			// C: a negative '*' precision is taken as if omitted.
			int prec = va_arg(*ap, int);
			c->precision = prec < 0 ? -1 : clamp_field(prec);
			p++;
		} else {
			c->precision = parse_field(&p);
		}
	}

	switch (*p) {
	case 'h':
		p++;
		c->length = LEN_H;
		if (*p == 'h') {
			p++;
			c->length = LEN_HH;
		}
		break;
	case 'l':
		p++;
		c->length = LEN_L;
		if (*p == 'l') {
			p++;
			c->length = LEN_LL;
		}
		break;
	case 'z':
		p++;
		c->length = LEN_Z;
		break;
	case 't':
		p++;
		c->length = LEN_T;
		break;
	case 'j':
		p++;
		c->length = LEN_J;
		break;
	}

	c->conv = *p;
	if (*p != '\0')
		p++;
	return p;
}

// Fetches a signed argument of the directive's length, widened.
static intmax_t fetch_signed(va_list *ap, enum length length)
{
	switch (length) {
	case LEN_HH:
		return (signed char)va_arg(*ap, int);
	case LEN_H:
		return (short)va_arg(*ap, int);
	case LEN_L:
		return va_arg(*ap, long);
	case LEN_LL:
		return va_arg(*ap, long long);
	case LEN_Z:
		// The signed type matching size_t: same size, so read it as
		// size_t and reinterpret.
		return (intmax_t)va_arg(*ap, size_t);
	case LEN_T:
		return va_arg(*ap, ptrdiff_t);
	case LEN_J:
		return va_arg(*ap, intmax_t);
	default:
		return va_arg(*ap, int);
	}
}

// Fetches an unsigned argument of the directive's length, widened.
static uintmax_t fetch_unsigned(va_list *ap, enum length length)
{
	switch (length) {
	case LEN_HH:
		return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_H:
		return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_L:
		return va_arg(*ap, unsigned long);
	case LEN_LL:
		return va_arg(*ap, unsigned long long);
	case LEN_Z:
		return va_arg(*ap, size_t);
	case LEN_T:
		// The unsigned type matching ptrdiff_t: same size.
		return (uintmax_t)va_arg(*ap, ptrdiff_t);
	case LEN_J:
		return va_arg(*ap, uintmax_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

// Prints 'len' characters of 'text' padded to the directive's width.
static void emit_text(struct sink *s, const struct conversion *c,
		      const char *text, int len)
{
	int pad = c->width > len ? c->width - len : 0;

	if (!c->left)
		put_repeat(s, ' ', pad);
	for (int i = 0; i < len; i++)
		put(s, text[i]);
	if (c->left)
		put_repeat(s, ' ', pad);
}

// Prints an integer: [spaces][sign or 0x][zeros][digits][spaces].
// 'negative' only ever comes with the signed conversions d and i.
static void emit_number(struct sink *s, const struct conversion *c,
			uintmax_t value, bool negative)
{
	const char *alphabet = c->conv == 'X' ? "0123456789ABCDEF"
					      : "0123456789abcdef";
	unsigned base = 10;
	char digits[3 * sizeof(uintmax_t)];	// octal needs 22 for 64 bits
	int ndigits = 0;
	bool is_zero = value == 0;
	char prefix[2];
	int nprefix = 0;

	if (c->conv == 'o')
		base = 8;
	else if (c->conv == 'x' || c->conv == 'X' || c->conv == 'p')
		base = 16;

	// C: zero with an explicit precision of zero prints no digits at all.
	if (!(is_zero && c->precision == 0)) {
		do {
			digits[ndigits++] = alphabet[value % base];
			value /= base;
		} while (value != 0);
	}

	int zeros = c->precision > ndigits ? c->precision - ndigits : 0;
	// '#' with octal: make sure the first digit printed is a 0.
	if (c->conv == 'o' && c->alt && zeros == 0 &&
	    (ndigits == 0 || digits[ndigits - 1] != '0'))
		zeros = 1;

	if (c->conv == 'd' || c->conv == 'i') {
		if (negative)
			prefix[nprefix++] = '-';
		else if (c->plus)
			prefix[nprefix++] = '+';
		else if (c->space)
			prefix[nprefix++] = ' ';
	} else if (c->conv == 'p' || (c->alt && !is_zero &&
				      (c->conv == 'x' || c->conv == 'X'))) {
		prefix[nprefix++] = '0';
		prefix[nprefix++] = c->conv == 'X' ? 'X' : 'x';
	}

	int len = nprefix + zeros + ndigits;
	int pad = c->width > len ? c->width - len : 0;
	// C: '0' is ignored with '-' and with an explicit precision.
	if (c->zero && !c->left && c->precision < 0) {
		zeros += pad;
		pad = 0;
	}

	if (!c->left)
		put_repeat(s, ' ', pad);
	for (int i = 0; i < nprefix; i++)
		put(s, prefix[i]);
	put_repeat(s, '0', zeros);
	while (ndigits > 0)
		put(s, digits[--ndigits]);
	if (c->left)
		put_repeat(s, ' ', pad);
}

static void emit_string(struct sink *s, const struct conversion *c,
			const char *str)
{
	int len = 0;

	// glibc prints "(null)" only when it fits in the precision; doing
	// the same keeps output identical on the host and in the kernel.
	if (str == NULL)
		str = (c->precision < 0 || c->precision >= 6) ? "(null)" : "";
	// Never read past the precision: the string need not be terminated.
	while ((c->precision < 0 || len < c->precision) && str[len] != '\0')
		len++;
	emit_text(s, c, str, len);
}

static void emit_signed(struct sink *s, const struct conversion *c,
			va_list *ap)
{
	intmax_t v = fetch_signed(ap, c->length);

	// Negate in unsigned arithmetic so INTMAX_MIN does not overflow.
	if (v < 0)
		emit_number(s, c, (uintmax_t)0 - (uintmax_t)v, true);
	else
		emit_number(s, c, (uintmax_t)v, false);
}

// Handles one directive whose text runs from 'start' ('%') to 'end'.
static void emit_conversion(struct sink *s, const struct conversion *c,
			    va_list *ap, const char *start, const char *end)
{
	char ch;
	void *ptr;

	switch (c->conv) {
	case 'd':
	case 'i':
		emit_signed(s, c, ap);
		break;
	case 'u':
	case 'x':
	case 'X':
	case 'o':
		emit_number(s, c, fetch_unsigned(ap, c->length), false);
		break;
	case 'p':
		ptr = va_arg(*ap, void *);
		if (ptr == NULL)
			emit_text(s, c, "(nil)", 5);
		else
			emit_number(s, c, (uintptr_t)ptr, false);
		break;
	case 's':
		emit_string(s, c, va_arg(*ap, const char *));
		break;
	case 'c':
		ch = (char)va_arg(*ap, int);
		emit_text(s, c, &ch, 1);
		break;
	case '%':
		put(s, '%');
		break;
	default:
		// Unknown or truncated directive: show it rather than guess,
		// so the mistake is visible in the output.
		while (start < end)
			put(s, *start++);
		break;
	}
}

int kvformat(format_out_fn out, void *arg, const char *fmt, va_list ap_in)
{
	struct sink s = { out, arg, 0 };
	struct conversion c;
	va_list ap;

	// A private copy we can pass by pointer to the helpers; va_list is an
	// array type on x86-64, so '&ap_in' would have the wrong type.
	va_copy(ap, ap_in);
	while (*fmt != '\0') {
		if (*fmt != '%') {
			put(&s, *fmt++);
			continue;
		}
		const char *start = fmt;
		fmt = parse_conversion(fmt + 1, &c, &ap);
		emit_conversion(&s, &c, &ap, start, fmt);
	}
	va_end(ap);
	return s.count < INT32_MAX ? (int)s.count : INT32_MAX;
}

// A bounded string buffer that keeps counting after it is full, which is
// what gives kvsnprintf its "length it would have had" return value.
struct buffer_sink {
	char *buf;
	size_t size;
	size_t pos;
};

static void buffer_out(void *arg, char c)
{
	struct buffer_sink *b = arg;

	if (b->pos + 1 < b->size)
		b->buf[b->pos] = c;
	b->pos++;
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct buffer_sink b = { buf, size, 0 };
	int n = kvformat(buffer_out, &b, fmt, ap);

	if (size > 0)
		buf[b.pos < size ? b.pos : size - 1] = '\0';
	return n;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

size_t kappendf(char *buf, size_t size, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (size == 0 || len >= size - 1)
		return size ? size - 1 : 0;
	va_start(ap, fmt);
	n = kvsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return len;
	return (size_t)n < size - len ? len + (size_t)n : size - 1;
}
