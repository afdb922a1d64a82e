"""The lectures' worked examples as one-click lessons, and the recipes that publish the lectures' real corpora.

A seed lesson is a corpus, a page and the settings and review the notes use, so that the home page can open each
example exactly as the notes present it. Two of them need a corpus too large to ship with webnb (20 Newsgroups and
the SMS Spam Collection): the operator publishes it once as a class corpus with its recipe
(``webnb corpora add PATH --lesson ID``), and the lesson's link appears from then on.

``ARCHIVES`` says where each original file webnb can publish comes from (its official name and who distributes it):
the home page's hint, ``webnb corpora add --help`` and a test of the README all read it from here.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from webnb.engine.evaluation.claims import BETTER, SAME, Claim

# The four groups of the lecture notebook's 20 Newsgroups example.
NEWSGROUPS_4 = ("alt.atheism", "comp.graphics", "sci.med", "soc.religion.christian")
# What the spam lecture replaces by placeholders before counting words.
SPAM_PLACEHOLDERS = ("url", "number", "money", "phone")


@dataclass(frozen=True)
class ArchiveSource:
    """Where one original file comes from: the ``file`` as its distributor names it, the dataset's official
    ``name``, who distributes it and where (``url``), and what to do with the download first, if anything
    (``note``). The README's "Class corpora" says the same, written by hand (a test compares them)."""

    file: str
    name: str
    distributor: str
    url: str
    lesson: str | None = None  # the recipe that publishes it with --lesson; None: published with --id and --name
    note: str = ""

    @property
    def credit(self) -> str:
        """Where it comes from in one or two sentences, for the home page's hint and the command line's help."""
        return (f"{self.file} is the {self.name}, distributed by {self.distributor} at {self.url}"
                + (f" ({self.note})." if self.note else "."))


# Only the files webnb reads as they come (webnb/engine/io/archives.py and readers.py): the lectures' three, each
# with its recipe, and Ling-Spam's archive, whose layout the archive reader knows. Enron-Spam and the sentence
# polarity data are not here: their archives are not laid out as webnb reads them.
ARCHIVES = (
    ArchiveSource(
        file="20news-bydate.tar.gz",
        name="20 Newsgroups, bydate version",
        distributor="Jason Rennie",
        url="http://qwone.com/~jason/20Newsgroups/",
        lesson="newsgroups-4",
    ),
    ArchiveSource(
        file="SMSSpamCollection",
        name="SMS Spam Collection v.1",
        distributor="the UCI Machine Learning Repository (collected by Tiago A. Almeida and José María Gómez Hidalgo)",
        url="https://archive.ics.uci.edu/dataset/228/sms+spam+collection",
        lesson="sms-spam",
        note="the file of that name inside the download",
    ),
    ArchiveSource(
        file="review_polarity.tar.gz",
        name="Movie Review Data, polarity dataset v2.0",
        distributor="Bo Pang and Lillian Lee (Cornell University)",
        url="https://www.cs.cornell.edu/people/pabo/movie-review-data/",
        lesson="movie-reviews",
    ),
    ArchiveSource(
        file="lingspam_public.tar.gz",
        name="Ling-Spam corpus",
        distributor="Ion Androutsopoulos et al. (Athens University of Economics and Business, AUEB)",
        url="http://www.aueb.gr/users/ion/data/lingspam_public.tar.gz",
        note="webnb reads its bare version",
    ),
)


def archive_source(file: str) -> ArchiveSource | None:
    """Where the original ``file`` comes from, or None for a file webnb knows nothing of."""
    return next((archive for archive in ARCHIVES if archive.file == file), None)


@dataclass(frozen=True)
class ClassCorpusRecipe:
    """How the operator publishes one lecture corpus: its id, title, description, classes and lesson presets
    (address parameter, text), and the id its archive's test part gets when it has one."""

    id: str
    name: str
    description: str
    source: str  # the file the operator starts from, for the command line's help and the home page's hint
    presets: tuple[tuple[str, str], ...]
    labels: tuple[str, ...] | None = None
    test_id: str | None = None

    @property
    def origin(self) -> ArchiveSource | None:
        """Where ``source`` comes from (``ARCHIVES``); None for a file the operator brought under another name."""
        return archive_source(self.source)


RECIPES = (
    ClassCorpusRecipe(
        id="newsgroups-4",
        name="20 Newsgroups, four groups",
        description=(
            "Posts to four Usenet groups (atheism, computer graphics, medicine, Christianity) from the 20 Newsgroups "
            "collection, split by date into a training and a test part. The lecture's Bernoulli model: presence of "
            "the 1,000 most frequent words, no smoothing, and probabilities kept 10⁻¹⁴ away from 0 and 1."
        ),
        source="20news-bydate.tar.gz",
        presets=(("model", "bernoulli"), ("alpha", "0"), ("binary", "1"), ("max_features", "1000"), ("floor", "1"),
                 ("text", "OpenGL on the GPU is fast")),
        labels=NEWSGROUPS_4,
        test_id="newsgroups-4-test",
    ),
    ClassCorpusRecipe(
        id="sms-spam",
        name="SMS Spam Collection",
        description=(
            "5,574 text messages, 747 of them spam: the SMS Spam Collection v.1, copyright Tiago A. Almeida and "
            "José María Gómez Hidalgo, free to use with this notice. Cite: T. A. Almeida, J. M. Gómez Hidalgo, "
            "A. Yamakami, “Contributions to the Study of SMS Spam Filtering: New Collection and Results”, "
            "Proc. ACM DocEng 2011. Provided as is, without warranty."
        ),
        source="SMSSpamCollection",
        presets=(("model", "multinomial"), ("alpha", "1"),
                 ("text", "WINNER! You have won a £900 prize. Call 09061701461 to claim")),
    ),
    ClassCorpusRecipe(
        id="movie-reviews",
        name="Movie reviews",
        description=(
            "2,000 film reviews, 1,000 positive and 1,000 negative: the polarity dataset v2.0 of Bo Pang and Lillian "
            "Lee (“A Sentimental Education”, ACL 2004), already lowercased and tokenised. The lecture's model: "
            "multinomial, English stop words removed, a pseudo-count of 2, in the notation β (priors) and α (words)."
        ),
        source="review_polarity.tar.gz",
        presets=(("model", "multinomial"), ("alpha", "2"), ("stop_words", "english"), ("notation", "beta-alpha"),
                 ("text", "a great film with a wonderful story , but the ending is bad")),
    ),
)


def get_recipe(recipe_id: str) -> ClassCorpusRecipe:
    for recipe in RECIPES:
        if recipe.id == recipe_id:
            return recipe
    raise KeyError(recipe_id)


@dataclass(frozen=True)
class SeedLesson:
    """One worked example of the notes: the page (``endpoint``) of ``corpus_id`` with the address ``parameters``
    the notes use, and what it ends with. ``recipe`` names the class corpus it needs, if it is not built in."""

    id: str
    title: str
    summary: str
    corpus_id: str
    parameters: tuple[tuple[str, str | tuple[str, ...]], ...]
    endpoint: str = "inference.show"
    recipe: str | None = None
    book: str = ""  # the textbook and section a textbook's example comes from (TEXTBOOK_LESSONS)

    @property
    def origin(self) -> ArchiveSource | None:
        """Where the original file of its class corpus comes from; None for a lesson on a built-in corpus."""
        return None if self.recipe is None else get_recipe(self.recipe).origin


def _presets_of(recipe_id: str) -> tuple[tuple[str, str], ...]:
    return get_recipe(recipe_id).presets


SEED_LESSONS = (
    SeedLesson(
        id="match-no-smoothing",
        title="Match reviews without smoothing",
        summary="“match was sharp”, Bernoulli with α = 0: positive gets 32/3645 and negative exactly 0, because "
                "every negative review says “not” and this one does not.",
        corpus_id="match-reviews",
        parameters=(("model", "bernoulli"), ("alpha", "0"), ("text", "match was sharp")),
    ),
    SeedLesson(
        id="match-cannot-decide",
        title="Both classes at zero",
        summary="“not sharp match” at α = 0: “not” is unseen in the positive reviews and “was” is in every negative "
                "one, so both products are 0 and the classifier cannot decide.",
        corpus_id="match-reviews",
        parameters=(("model", "bernoulli"), ("alpha", "0"), ("text", "not sharp match")),
    ),
    SeedLesson(
        id="match-laplace",
        title="Laplace smoothing decides",
        summary="The same review with α = 1: one pseudo-count per outcome lifts every zero, and a class wins again.",
        corpus_id="match-reviews",
        parameters=(("model", "bernoulli"), ("alpha", "1"), ("text", "not sharp match")),
    ),
    SeedLesson(
        id="china-japan",
        title="China or not China",
        summary="The multinomial model with add-one smoothing on document d5, “Chinese Chinese Chinese Tokyo Japan”: "
                "three “Chinese” outweigh “Tokyo” and “Japan”, and d5 is China.",
        corpus_id="china-japan",
        parameters=(("model", "multinomial"), ("alpha", "1"), ("text", "Chinese Chinese Chinese Tokyo Japan")),
    ),
    SeedLesson(
        id="spam-ham",
        title="Spam or ham",
        summary="Bernoulli with α = 1 on sixteen messages, with links, numbers, money and phone numbers replaced by "
                "placeholders before the words are counted.",
        corpus_id="spam-ham",
        parameters=(("model", "bernoulli"), ("alpha", "1"), ("normalize", SPAM_PLACEHOLDERS),
                    ("text", "Claim your free prize now, call 0800 555 0199")),
    ),
    SeedLesson(
        id="iris",
        title="Iris flowers",
        summary="Gaussian Naive Bayes on four measurements: a bell curve per species and feature, and the flower "
                "5.1, 3.5, 1.4, 0.2 classified step by step.",
        corpus_id="iris",
        parameters=(("value", ("5.1", "3.5", "1.4", "0.2")),),
        endpoint="gaussian.inference",
    ),
    SeedLesson(
        id="sms-spam",
        title="SMS spam, the real collection",
        summary="5,574 real text messages with the multinomial model and α = 1.",
        corpus_id="sms-spam",
        parameters=_presets_of("sms-spam"),
        recipe="sms-spam",
    ),
    SeedLesson(
        id="sms-spam-placeholders",
        title="SMS spam with placeholders",
        summary="The same model once links, numbers, money and phone numbers become placeholders: one word for "
                "every prize amount and every premium-rate number.",
        corpus_id="sms-spam",
        parameters=(*_presets_of("sms-spam"), ("normalize", SPAM_PLACEHOLDERS)),
        recipe="sms-spam",
    ),
    SeedLesson(
        id="movie-reviews",
        title="Movie reviews",
        summary="2,000 real film reviews with the lecture's multinomial model: stop words removed and a pseudo-count "
                "of 2; a review with “great” and “wonderful” but also “bad”.",
        corpus_id="movie-reviews",
        parameters=_presets_of("movie-reviews"),
        recipe="movie-reviews",
    ),
    SeedLesson(
        id="movie-reviews-bigrams",
        title="Movie reviews, word pairs",
        summary="The same reviews counted as word pairs (bigrams) with a pseudo-count of 0.1: “not good” becomes a "
                "feature of its own, which single words cannot see.",
        corpus_id="movie-reviews",
        parameters=(*(item for item in _presets_of("movie-reviews") if item[0] not in ("alpha", "text")),
                    ("alpha", "0.1"), ("ngrams", "2-2"), ("text", "the acting is not good , a waste of time")),
        recipe="movie-reviews",
    ),
    SeedLesson(
        id="newsgroups-4",
        title="20 Newsgroups, four groups",
        summary="The lecture's Bernoulli model on 2,257 posts: binary features of the 1,000 most frequent words, "
                "probabilities floored at 10⁻¹⁴, and “OpenGL on the GPU is fast” goes to comp.graphics.",
        corpus_id="newsgroups-4",
        parameters=_presets_of("newsgroups-4"),
        recipe="newsgroups-4",
    ),
)


IIR = "Manning, Raghavan and Schütze, Introduction to Information Retrieval (2008)"
SLP3 = "Jurafsky and Martin, Speech and Language Processing (3rd edition draft)"

# The textbooks' own worked examples on built-in corpora: what the courses that teach from them show next.
TEXTBOOK_LESSONS = (
    SeedLesson(
        id="iir-13-2",
        title="The Bernoulli model flips d5",
        summary="The same d5 with the Bernoulli model and add-one smoothing: only presence counts, and every city "
                "the document lacks is a factor too. China gets 3/4 · 4/5 · 1/5 · 1/5 · (1 − 2/5)³ = 81/15625 ≈ 0.005, "
                "not China 1/4 · 2/3 · 2/3 · 2/3 · (1 − 1/3)³ = 16/729 ≈ 0.022: not China, the opposite of the "
                "multinomial model's answer.",
        corpus_id="china-japan",
        parameters=(("model", "bernoulli"), ("alpha", "1"), ("text", "Chinese Chinese Chinese Tokyo Japan")),
        book=f"{IIR}, Example 13.2",
    ),
    SeedLesson(
        id="slp3-sentiment",
        title="Predictable with no fun",
        summary="Five film reviews, the multinomial model with add-one smoothing, and “predictable with no fun”: "
                "“with” was never seen and is dropped; negative gets 3/5 · (2 · 2 · 1)/34³ = 3/49130 and positive "
                "2/5 · (1 · 1 · 2)/29³ = 4/121945, so negative.",
        corpus_id="film-sentiment",
        parameters=(("model", "multinomial"), ("alpha", "1"), ("text", "predictable with no fun")),
        book=f"{SLP3}, section 4.3",
    ),
    SeedLesson(
        id="slp3-binary",
        title="Predictable with no fun, each word once",
        summary="The chapter's binary variant: a word counts once per review however often it occurs. “the” occurs "
                "twice in one positive review, so the positive class has 8 words instead of 9 and gets "
                "2/5 · (1 · 1 · 2)/28³ = 1/27440; negative keeps 3/49130 and still wins.",
        corpus_id="film-sentiment",
        parameters=(("model", "multinomial"), ("alpha", "1"), ("binary", "1"), ("text", "predictable with no fun")),
        book=f"{SLP3}, section 4.4",
    ),
    SeedLesson(
        id="slp3-no-smoothing",
        title="Predictable with no fun, no smoothing",
        summary="α = 0: “fun” never occurs in a negative review, “predictable” and “no” never in a positive one, so "
                "both products are exactly 0 and the classifier cannot decide.",
        corpus_id="film-sentiment",
        parameters=(("model", "multinomial"), ("alpha", "0"), ("text", "predictable with no fun")),
        book=f"{SLP3}, section 4.3",
    ),
)


# What seed 003's notes claim about other models of the movie reviews, checked on the compare and evaluation pages of
# the lesson's corpus (webnb/views/claims.py). Keys of the compare page's models, and "bigrams": the multinomial model
# on word pairs with the notes' pseudo-count for them.
BIGRAMS = "bigrams"
BIGRAM_ALPHA = Fraction(1, 10)
NOTES_CLAIMS = {
    "movie-reviews": (
        Claim(BIGRAMS, "Word pairs",
              "Counting word pairs instead of single words improves the results substantially.",
              "multinomial", BIGRAMS, BETTER,
              "word pairs with a pseudo-count of 0.1 against single words with 2, on 200 held-out reviews"),
        Claim("binary", "Each word once",
              "Counting each word once per review, instead of every time it occurs, makes no difference here.",
              "multinomial", "multinomial-binary", SAME, "both with a pseudo-count of 2, on 200 reviews"),
        Claim("logistic", "Logistic regression",
              "Logistic regression on the same words does 3 points better than Naive Bayes.",
              "multinomial", "logistic", BETTER, "about 0.80 against 0.83, with C = 0.25, on 200 reviews",
              (("C", "0.25"),)),
    ),
}
